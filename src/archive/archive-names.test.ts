import { describe, expect, test } from "vitest";
import {
  compareArchiveNamesNewestFirst,
  formatArchiveName,
  formatArchiveTimestamp,
  isLeftoverTempName,
  isPlainArchiveFileName,
  parseArchiveName,
  partialFileName,
  sanitizeWorkflowId,
} from "./archive-names.js";

describe("formatArchiveTimestamp", () => {
  test.each([
    ["2026-11-20T09:30:05.000Z", "20261120T093005Z"],
    ["2026-11-20T09:30:05.999Z", "20261120T093005Z"],
    ["2026-11-20T23:30:05+02:00", "20261120T213005Z"],
  ])("%s → %s", (iso, expected) => expect(formatArchiveTimestamp(new Date(iso))).toBe(expected));
});

describe("sanitizeWorkflowId", () => {
  test.each([
    ["wf-login", "wf-login"],
    ["wf_login.v2", "wf_login.v2"],
    ["wf login/../x", "wf-login-..-x"],
    ["../../etc", "etc"],
    [".hidden", "hidden"],
    ["--rm", "rm"],
    ["", "unknown"],
    ["///", "unknown"],
    [42, "unknown"],
    [null, "unknown"],
    ["é", "unknown"],
  ])("%j → %s", (input, expected) => expect(sanitizeWorkflowId(input)).toBe(expected));

  test("limits the length", () => expect(sanitizeWorkflowId("a".repeat(500))).toHaveLength(128));
});

describe("parseArchiveName", () => {
  test.each([
    ["wf-login_20261120T093005Z.tar.gz", { workflowId: "wf-login", timestamp: "20261120T093005Z", seq: 1 }],
    ["wf-login_20261120T093005Z-2.tar.gz", { workflowId: "wf-login", timestamp: "20261120T093005Z", seq: 2 }],
    ["my_wf_20261120T093005Z-12.tar.gz", { workflowId: "my_wf", timestamp: "20261120T093005Z", seq: 12 }],
  ])("%s", (name, expected) => expect(parseArchiveName(name)).toEqual({ name, ...expected }));

  test.each([
    "wf_20261120T093005Z.tar",
    "wf_2026-11-20.tar.gz",
    "_20261120T093005Z.tar.gz",
    "wf_20261120T093005Z-0.tar.gz",
    "wf_20261120T093005Z-.tar.gz",
    ".partial-x-wf_20261120T093005Z.tar.gz.partial",
    "garbage.tar.gz",
  ])("%s is not an archive name", (name) => expect(parseArchiveName(name)).toBeNull());

  test("formatArchiveName round-trips", () => {
    for (const seq of [1, 2, 10]) {
      const name = formatArchiveName("wf", "20261120T093005Z", seq);
      expect(parseArchiveName(name)?.seq).toBe(seq);
    }
  });
});

test("newest first: by timestamp, then -N numerically, unknown names last", () => {
  const names = [
    "garbage.tar.gz",
    "b_20261120T093005Z.tar.gz",
    "a_20261120T093005Z-10.tar.gz",
    "a_20261121T000000Z.tar.gz",
    "a_20261120T093005Z-2.tar.gz",
    "a_20251231T235959Z.tar.gz",
    "another.tar.gz",
  ];
  expect([...names].sort(compareArchiveNamesNewestFirst)).toEqual([
    "a_20261121T000000Z.tar.gz",
    "a_20261120T093005Z-10.tar.gz",
    "a_20261120T093005Z-2.tar.gz",
    "b_20261120T093005Z.tar.gz",
    "a_20251231T235959Z.tar.gz",
    "another.tar.gz",
    "garbage.tar.gz",
  ]);
});

describe("isPlainArchiveFileName", () => {
  test.each([
    ["wf_20261120T093005Z.tar.gz", true],
    ["anything.tar.gz", true],
    [".tar.gz", false],
    [".hidden.tar.gz", false],
    ["../x.tar.gz", false],
    ["a/b.tar.gz", false],
    ["a\\b.tar.gz", false],
    ["a..b.tar.gz", false],
    ["/abs.tar.gz", false],
    ["wf.tar", false],
    ["", false],
  ])("%j → %s", (name, expected) => expect(isPlainArchiveFileName(name)).toBe(expected));
});

test("temp names are recognised as leftovers and never as archives", () => {
  const partial = partialFileName("wf_20261120T093005Z.tar.gz", "abc123");
  expect(isLeftoverTempName(partial)).toBe(true);
  expect(partial.endsWith(".tar.gz")).toBe(false);
  expect(isPlainArchiveFileName(partial)).toBe(false);
  for (const name of [".staging-Ab12", ".restore-Ab12", ".clear-Ab12"]) expect(isLeftoverTempName(name)).toBe(true);
  for (const name of ["wf_20261120T093005Z.tar.gz", "notes.txt", ".gitkeep"])
    expect(isLeftoverTempName(name)).toBe(false);
});
