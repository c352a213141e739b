import type { WorkspaceRole } from "../db/schema/index.ts";

/** A workspace as one of its members sees it: with their role there. */
export interface WorkspaceOfMember {
  id: string;
  name: string;
  role: WorkspaceRole;
  /** The workspace every account gets at sign-up. */
  personal: boolean;
  createdAt: Date;
}
