import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { otherClientsSeen } from "./detect.js";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("other clients a person uses here (named after a Claude Code install, never installed)", () => {
  it("a client's folder in the project, or its command on PATH; none once dotagent is installed for it", () => {
    const root = mkdtempSync(join(tmpdir(), "detect-"));
    const bin = mkdtempSync(join(tmpdir(), "detect-bin-"));
    dirs.push(root, bin);
    expect(otherClientsSeen(root, bin)).toEqual([]);
    mkdirSync(join(root, ".codex"));
    writeFileSync(join(bin, "copilot"), "#!/bin/sh\n");
    chmodSync(join(bin, "copilot"), 0o755);
    expect(otherClientsSeen(root, `${bin}:/nowhere`).map((c) => [c.client, c.why])).toEqual([
      ["copilot", "`copilot` on PATH"],
      ["codex", ".codex"],
    ]);
    writeFileSync(join(root, ".codex/.dotagent-install.json"), "{}");
    expect(otherClientsSeen(root, bin).map((c) => c.client)).toEqual(["copilot"]);
  });
});
