import { Hono } from "hono";
import type { DatabaseHandle } from "../db/database.ts";
import { cgroupsInForce } from "../engine/sandbox/sandbox-cgroups.ts";
import type { SandboxIsolation } from "../engine/sandbox/sandbox-isolation.ts";
import type { AppEnv } from "./app-env.ts";
import { requestLogger } from "./request-context.ts";

const pingTimeoutMs = 2000;

function withTimeout<T>(promise: Promise<T>, milliseconds: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${milliseconds} ms`)), milliseconds);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * `GET /healthz`: healthy only while the database answers, so a load balancer can route around us.
 * A process that runs workflows also says how their code is isolated and bounded.
 */
export function healthRoutes(database: DatabaseHandle, sandbox: SandboxIsolation | undefined): Hono<AppEnv> {
  const isolation =
    sandbox === undefined
      ? {}
      : { sandbox: { mode: sandbox.mode, egress: sandbox.egress, cgroups: cgroupsInForce(sandbox) } };
  return new Hono<AppEnv>().get("/healthz", async (c) => {
    try {
      await withTimeout(database.ping(), pingTimeoutMs);
      return c.json({ status: "ok", ...isolation });
    } catch (error) {
      requestLogger(c).warn({ err: error }, "health check failed: the database does not answer");
      return c.json({ status: "unavailable", message: "the database does not answer" }, 503);
    }
  });
}
