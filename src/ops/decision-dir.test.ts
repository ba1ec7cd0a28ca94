import { describe, expect, it } from "vitest";
import { addDirToCommands, decisionWithDir } from "./decision-dir.js";

describe("issue 21, case 10: a decision's commands repeat the --dir the call was given", () => {
  it.each([
    ["dotagent resume", "p", "dotagent resume --dir p"],
    [
      "dotagent archive --reason 'stale state'",
      "../my proj",
      "dotagent archive --dir '../my proj' --reason 'stale state'",
    ],
    ["dotagent rollback --to 12 --yes", "/tmp/it's", `dotagent rollback --dir '/tmp/it'\\''s' --to 12 --yes`],
    ["dotagent once op-1 --redo -- git push --dir x", "p", "dotagent once --dir p op-1 --redo -- git push --dir x"],
    [
      "dotagent task retry a --extra-attempts 2 && dotagent task retry b --extra-attempts 2",
      "p",
      "dotagent task --dir p retry a --extra-attempts 2 && dotagent task --dir p retry b --extra-attempts 2",
    ],
    [
      "edit memory/reports/demand.json, then dotagent run",
      "p",
      "edit memory/reports/demand.json, then dotagent run --dir p",
    ],
    ["dotagent init --dir p --yes", "p", "dotagent init --dir p --yes"],
    ["stop here; the state stays for later", "p", "stop here; the state stays for later"],
    ["dotagent resume", undefined, "dotagent resume"],
  ])("%s with --dir %s", (text, dir, expected) => expect(addDirToCommands(text, dir)).toBe(expected));

  it("the question is left as it is; null stays null", () => {
    expect(
      decisionWithDir(
        { question: "dotagent resume?", default: false, yes: "dotagent resume", no: "dotagent validate" },
        "p",
      ),
    ).toEqual({
      question: "dotagent resume?",
      default: false,
      yes: "dotagent resume --dir p",
      no: "dotagent validate --dir p",
    });
    expect(decisionWithDir(null, "p")).toBeNull();
  });
});
