// Types for package-figures.mjs (plain JavaScript so it runs without a build step).
export const ROOT: string;
export const QUOTING_FILES: readonly string[];
export const TOLERANCE: number;
export interface DiskUsage {
  /** Bytes on disk: allocated blocks, as `du` counts them. */
  disk: number;
  /** Bytes of file contents. */
  apparent: number;
  files: number;
}
export interface Packed {
  tarball: string;
  packed: number;
  unpacked: number;
  files: number;
  name: string;
  version: string;
}
export interface Installed extends DiskUsage {
  installed: string;
  packages: string[];
  ms: number;
}
export interface Figures {
  packed: number;
  unpacked: number;
  installed: number;
  plugin: number;
}
export interface Quote {
  where: string;
  text: string;
  kind: keyof Figures;
  bytes: number;
}
export function diskUsage(path: string): DiskUsage;
export function pack(packDir: string): Packed;
export function installGlobal(tarball: string, prefix: string): Installed;
export function pluginFigures(): { plugin: DiskUsage; helper: number };
export function figuresFrom(
  packed: Packed,
  installed: Installed,
  plugin: { plugin: DiskUsage; helper: number },
): Figures;
export function quotedFigures(root?: string): Quote[];
export function staleQuotes(figures: Figures, quotes: Quote[]): Array<Quote & { measured: number }>;
export function kB(bytes: number): string;
export function MB(bytes: number): string;
