import { bootstrap } from "./process/bootstrap.ts";

/** Entry point of `npm start`: every role WEFT_ROLES names, configured from the environment. */
await bootstrap(process.env, "platform");
