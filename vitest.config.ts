import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "test/torture/long/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
  define: { __DOTAGENT_VERSION__: JSON.stringify("0.0.0-test") },
});
