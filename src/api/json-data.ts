// What a checkpoint store may save: data that loads back as it was saved. JSON.stringify turns
// NaN and Infinity into null, a Map or Set into {}, undefined in an array into null, a Date into
// a string, and drops functions: saved silently, the data would come back changed. This finds the
// first such value and names its JSON path, so the save is refused with one clear line instead.

/** A value that would not survive JSON: where it is and what it is. */
export interface JsonDataProblem {
  /** The JSON path, like `data.steps[2].score`. */
  readonly path: string;
  readonly problem: string;
}

function describeObject(value: object): string {
  const tag = Object.prototype.toString.call(value).slice(8, -1);
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object" ? name : tag;
}

function formatKey(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** The first value of `value` that JSON would change or drop, or null when it is plain JSON data. */
export function findJsonDataProblem(value: unknown, root: string): JsonDataProblem | null {
  const ancestors = new Set<object>();
  const visit = (v: unknown, path: string, inArray: boolean): JsonDataProblem | null => {
    switch (typeof v) {
      case "string":
      case "boolean":
        return null;
      case "number":
        return Number.isFinite(v)
          ? null
          : { path, problem: `is ${String(v)}, which JSON has no number for (it would load back as null)` };
      case "bigint":
        return { path, problem: "is a BigInt, which JSON cannot hold; save it as a string" };
      case "undefined":
        return inArray || path === root
          ? { path, problem: `is undefined${inArray ? " (in an array it would load back as null)" : ""}` }
          : null;
      case "function":
      case "symbol":
        return { path, problem: `is a ${typeof v}, which JSON drops` };
    }
    if (v === null) return null;
    const object = v as object;
    if (ancestors.has(object))
      return { path, problem: "refers back to an object that holds it (a cycle), which JSON cannot hold" };
    ancestors.add(object);
    try {
      if (Array.isArray(object)) {
        for (let i = 0; i < object.length; i++) {
          const found = visit(i in object ? object[i] : undefined, formatKey(path, i), true);
          if (found) return found;
        }
        return null;
      }
      const proto = Object.getPrototypeOf(object) as unknown;
      if (proto !== Object.prototype && proto !== null) {
        return {
          path,
          problem: `is a ${describeObject(object)}, which would not load back as one (JSON keeps plain objects and arrays only); convert it to plain data first`,
        };
      }
      for (const key of Object.keys(object)) {
        const found = visit((object as Record<string, unknown>)[key], formatKey(path, key), false);
        if (found) return found;
      }
      return null;
    } finally {
      ancestors.delete(object);
    }
  };
  return visit(value, root, false);
}
