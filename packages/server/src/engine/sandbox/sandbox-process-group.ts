import type { ChildProcess } from "node:child_process";

/**
 * Ends a sandbox's process and everything in its process group. The host starts each child as the
 * leader of a group of its own (`detached`), and bubblewrap clones the sandbox's init into that
 * group, where it stays until the workflow's process starts a session of its own. Killed alone
 * while it was still setting the sandbox up, bubblewrap left that init waiting for ever for the
 * user namespace's maps it would have written: a process and its descriptors for the life of the
 * machine. A child that leads no group (a host that did not start it detached) is killed alone.
 */
export function killSandboxProcess(child: ChildProcess): void {
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL");
      return;
    } catch {
      // No group of its own: the child alone, below.
    }
  }
  child.kill("SIGKILL");
}
