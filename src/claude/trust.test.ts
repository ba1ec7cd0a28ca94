import { describe, expect, it } from "vitest";
import { trustedEntry } from "./trust.js";

const trusted = (...folders: string[]) => ({
  projects: Object.fromEntries(folders.map((f) => [f, { hasTrustDialogAccepted: true }])),
});

describe("trustedEntry", () => {
  it.each<[string, unknown, string[], string | null]>([
    ["the folder itself", trusted("/p"), ["/p"], "/p"],
    ["its git root", trusted("/repo"), ["/repo/app", "/repo/app", "/repo"], "/repo"],
    ["a parent folder", trusted("/work"), ["/work/p"], "/work"],
    ["another folder", trusted("/q"), ["/p"], null],
    ["a folder whose name starts the same", trusted("/p"), ["/pp"], null],
    ["trust recorded as false", { projects: { "/p": { hasTrustDialogAccepted: false } } }, ["/p"], null],
    ["a string for true", { projects: { "/p": { hasTrustDialogAccepted: "true" } } }, ["/p"], null],
    ["no projects", {}, ["/p"], null],
    ["projects not an object", { projects: "x" }, ["/p"], null],
    ["not an object", null, ["/p"], null],
  ])("%s", (_name, state, folders, entry) => {
    expect(trustedEntry(state, folders)).toBe(entry);
  });
});
