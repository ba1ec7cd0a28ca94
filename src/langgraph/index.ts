// dotagent-workflow/langgraph: a LangGraph checkpointer on dotagent's store (docs/api.md, SPEC §21).
// Its own entry and bundle (dist/langgraph.mjs), so the main package needs none of LangGraph's
// packages: @langchain/langgraph-checkpoint and @langchain/core are optional peer dependencies,
// imported from here only.
export { DotagentSaver, type DotagentSaverOptions } from "./saver.js";
