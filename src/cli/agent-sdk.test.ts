import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { SDK, SDK_RANGE, sdkVersionFits } from "./agent-sdk.js";

it("SDK_RANGE is package.json's peer range, and sdkVersionFits agrees with it", () => {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    peerDependencies: Record<string, string>;
  };
  expect(pkg.peerDependencies[SDK]).toBe(SDK_RANGE);
  expect(["0.3.0", "0.3.329"].map(sdkVersionFits)).toEqual([true, true]);
  expect(["0.2.9", "0.4.0", "1.0.0", "garbage"].map(sdkVersionFits)).toEqual([false, false, false, false]);
});
