// The CLI's version, set by the build (scripts/build.mjs) and by vitest's define.
declare const __DOTAGENT_VERSION__: string;
export const VERSION: string = typeof __DOTAGENT_VERSION__ === "string" ? __DOTAGENT_VERSION__ : "0.0.0";
