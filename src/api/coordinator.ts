// The manifest of a coordinator that fans work out to sub-agents: what was planned, which items
// completed with which result, which failed. It is one checkpoint in a store, and every change is
// one store.update(): atomic on disk, serialised across processes by the store's lock and inside
// one process by update's read-change-write without a pause, so parallel sub-agents finishing
// at once never lose each other's results. A rerun asks pending() and never repeats a completed item.
import { DotagentError, EXIT } from "../core/errors.js";
import { idProblem } from "../schema/json.js";
import { canonicalJson } from "./canonical-json.js";
import type { CheckpointStore } from "./checkpoint-store.js";

export interface PlannedItem {
  readonly id: string;
  readonly input?: unknown;
}

export interface Manifest {
  readonly planned: PlannedItem[];
  readonly completed: Record<string, unknown>;
  readonly failed: Record<string, unknown>;
}

export interface Coordinator {
  /**
   * Records the plan on the first call and returns it; a later call with the same ids returns the
   * recorded plan (inputs as first recorded); other ids throw `plan_changed`.
   */
  plan(items: ReadonlyArray<PlannedItem>): Promise<PlannedItem[]>;
  /** Records `id`'s result (a failure recorded before is forgotten). */
  complete(id: string, result?: unknown): Promise<void>;
  /** Records why `id` failed; it stays pending, so a rerun tries it again. */
  fail(id: string, error: unknown): Promise<void>;
  /** Planned items not completed, in plan order (failed ones included). */
  pending(): Promise<PlannedItem[]>;
  manifest(): Promise<Manifest>;
}

export function coordinator(store: CheckpointStore<unknown>, id = "coordinator"): Coordinator {
  const s = store as Partial<CheckpointStore<unknown>> | null;
  if (
    typeof s !== "object" ||
    s === null ||
    typeof s.path !== "string" ||
    typeof s.load !== "function" ||
    typeof s.update !== "function"
  ) {
    throw new DotagentError(
      "usage",
      "coordinator(store, id?) takes a checkpoint store made by checkpointStore(dir, name)",
      EXIT.usage,
    );
  }
  if (typeof id !== "string" || idProblem(id, "coordinator id") !== null)
    throw new DotagentError(
      "usage",
      idProblem(String(id), "coordinator id") ?? "a coordinator id must be a string",
      EXIT.usage,
    );
  const raw = store;
  const where = () => `${store.path} (${id})`;
  const file = `${store.path}/${id}.checkpoint.json`;
  /** The checkpoint as a manifest, or `checkpoint_invalid` (exit 3): another program's data under this id is never taken for a plan. */
  const checked = (value: unknown): Manifest | undefined => {
    if (value === undefined) return undefined;
    const problem = manifestProblem(value);
    if (problem !== null)
      throw new DotagentError(
        "checkpoint_invalid",
        `${file}: not a coordinator manifest ({ planned: [{ id, input? }], completed: {}, failed: {} }): ${problem}; use another id, or clear() the store`,
        EXIT.invalid,
        { file },
      );
    return value as Manifest;
  };
  const checkpoint = {
    load: async (key: string) => checked(await raw.load(key)),
    update: (key: string, change: (current: Manifest | undefined) => Manifest) =>
      raw.update(key, (current) => change(checked(current))) as Promise<Manifest>,
  };

  function planned(manifest: Manifest | undefined, itemId: string): Manifest {
    if (manifest === undefined)
      throw new DotagentError("not_planned", `${where()} has no plan yet; call plan() first`, EXIT.refused);
    if (!manifest.planned.some((item) => item.id === itemId)) {
      throw new DotagentError(
        "not_planned",
        `${JSON.stringify(itemId)} is not in the plan of ${where()}; plan it first`,
        EXIT.refused,
      );
    }
    return manifest;
  }

  return {
    async plan(items) {
      const ids = checkItems(items);
      const same = (current: Manifest) => {
        const recorded = current.planned.map((item) => item.id);
        if (canonicalJson(recorded) !== canonicalJson(ids)) {
          throw new DotagentError(
            "plan_changed",
            `${where()} was planned with ${describeIds(recorded)}, not ${describeIds(ids)}; clear() the store to plan again`,
            EXIT.refused,
            { planned: recorded },
          );
        }
        return current;
      };
      // A repeat writes nothing, so it also works once the store is complete.
      const recorded = await checkpoint.load(id);
      if (recorded !== undefined) return same(recorded).planned;
      const manifest = await checkpoint.update(id, (current) => {
        if (current === undefined) {
          return {
            planned: items.map((item) => ({ id: item.id, ...(item.input === undefined ? {} : { input: item.input }) })),
            completed: {},
            failed: {},
          };
        }
        return same(current);
      });
      return manifest.planned;
    },
    async complete(itemId, result) {
      await checkpoint.update(id, (current) => {
        const manifest = planned(current, itemId);
        const { [itemId]: _dropped, ...failed } = manifest.failed;
        return { ...manifest, completed: { ...manifest.completed, [itemId]: result ?? null }, failed };
      });
    },
    async fail(itemId, error) {
      await checkpoint.update(id, (current) => {
        const manifest = planned(current, itemId);
        return {
          ...manifest,
          failed: { ...manifest.failed, [itemId]: error instanceof Error ? error.message : (error ?? null) },
        };
      });
    },
    async pending() {
      const manifest = await checkpoint.load(id);
      return manifest === undefined
        ? []
        : manifest.planned.filter((item) => !Object.hasOwn(manifest.completed, item.id));
    },
    async manifest() {
      return (await checkpoint.load(id)) ?? { planned: [], completed: {}, failed: {} };
    },
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** What is wrong with a manifest read back, or null. */
function manifestProblem(value: unknown): string | null {
  if (!isRecord(value))
    return `it is ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}`;
  if (!Array.isArray(value.planned)) return "planned: expected an array";
  const bad = value.planned.findIndex((item) => !isRecord(item) || typeof item.id !== "string");
  if (bad >= 0) return `planned[${bad}]: expected { id, input? } with a string id`;
  if (!isRecord(value.completed)) return "completed: expected an object";
  if (!isRecord(value.failed)) return "failed: expected an object";
  return null;
}

function checkItems(items: ReadonlyArray<PlannedItem>): string[] {
  if (!Array.isArray(items) || items.length === 0)
    throw new DotagentError("usage", "plan() takes a non-empty array of { id, input? }", EXIT.usage);
  const ids = items.map((item) => (item as PlannedItem | null)?.id);
  for (const itemId of ids) {
    const problem = typeof itemId === "string" ? idProblem(itemId, "item id") : "every planned item needs a string id";
    if (problem !== null) throw new DotagentError("usage", problem, EXIT.usage);
  }
  const twice = ids.find((itemId, i) => ids.indexOf(itemId) !== i);
  if (twice !== undefined)
    throw new DotagentError("usage", `item id ${JSON.stringify(twice)} is planned twice`, EXIT.usage);
  return ids as string[];
}

function describeIds(ids: string[]): string {
  const shown = ids.slice(0, 5).join(", ");
  return ids.length > 5 ? `${shown} … (${ids.length} items)` : shown;
}
