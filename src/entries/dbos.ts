/**
 * `cordon/dbos`: code mode inside a DBOS workflow (`@dbos-inc/dbos-sdk`, an optional peer). In a
 * workflow, `await dbosRunCode(cm, code)` runs the code with its journal kept in the workflow's steps:
 * DBOS recovers the run with the workflow after a crash, and a call that needs a person waits on
 * `DBOS.recv` for the app's `DBOS.send` (docs/durability.md).
 */

export {
  DBOS_PENDING_EVENT,
  type DbosPendingCall,
  type DbosRunCodeOptions,
  dbosRunCode,
} from "../durable/dbos.js";
