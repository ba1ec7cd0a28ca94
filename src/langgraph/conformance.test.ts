// LangGraph's own conformance suite for checkpointers (@langchain/langgraph-checkpoint-validation),
// unmodified, on DotagentSaver: put, putWrites, getTuple (with channels carried over from an
// ancestor and old pending sends migrated), list (every combination of thread, namespace, limit,
// before and filter) and deleteThread. Its opt-in getDeltaChannelHistory suite runs too.
// The suite calls describe/it/expect as globals (its own CLI runs vitest with globals: true).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { deltaChannelHistoryTests, validate } from "@langchain/langgraph-checkpoint-validation";
import initializer from "./initializer.test-support.js";

Object.assign(globalThis, { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it });

validate(initializer);
deltaChannelHistoryTests(initializer);
