// What the src/api/ tests share: fresh temp folders removed after each test, and the
// DotagentError a promise rejects with.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect } from "vitest";
import { DotagentError } from "../core/errors.js";

/** A `fresh()` making temp folders that are removed after each test of the calling file. */
export function tempFolders(prefix: string): () => string {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
  return () => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
}

/** The DotagentError `promise` rejects with; fails the test when it resolves or throws anything else. */
export async function failure(promise: Promise<unknown>): Promise<DotagentError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DotagentError);
    return error as DotagentError;
  }
  throw new Error("expected a DotagentError");
}
