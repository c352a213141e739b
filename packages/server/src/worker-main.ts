import { bootstrap } from "./process/bootstrap.ts";

/**
 * Entry point of a worker process: it only runs workflow executions, claiming them from the
 * database that DATABASE_URL names. Any number of them can share one PostgreSQL server.
 */
await bootstrap(process.env, "worker");
