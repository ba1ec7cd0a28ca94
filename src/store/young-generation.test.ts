import { describe, expect, it, vi } from "vitest";

describe("keepYoungGenerationSmall", () => {
  it("changes V8's flags only once the CLI allowed it, once, and puts the default back at exit", async () => {
    vi.resetModules();
    const { allowYoungGenerationKept, keepYoungGenerationSmall } = await import("./young-generation.js");
    const v8 = process.getBuiltinModule("node:v8");
    const set = vi.spyOn(v8, "setFlagsFromString").mockImplementation(() => {});
    const exits = process.listeners("exit");
    try {
      // A library user's process: left as it is.
      keepYoungGenerationSmall();
      expect(set).not.toHaveBeenCalled();
      allowYoungGenerationKept();
      keepYoungGenerationSmall();
      keepYoungGenerationSmall();
      expect(set.mock.calls).toEqual([["--semi-space-growth-factor=1"]]);
      const added = process.listeners("exit").filter((l) => !exits.includes(l));
      expect(added).toHaveLength(1);
      // First among the exit listeners: before boot.ts's code cache write.
      expect(process.listeners("exit")[0]).toBe(added[0]);
      (added[0] as () => void)();
      expect(set.mock.calls[1]).toEqual(["--semi-space-growth-factor=2"]);
      process.removeListener("exit", added[0]!);
    } finally {
      set.mockRestore();
    }
  });
});
