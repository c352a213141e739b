export {
  type ClientOptions,
  createClient,
  isRpcError,
  RpcError,
  requestIdOf,
  type WeftClient,
} from "./create-client.ts";
export { createStudioClient, type StudioClient } from "./create-studio-client.ts";
export { type AgentAuthEndpoints, type Discovery, discover } from "./discover.ts";
export {
  completeClaim,
  type ExchangedToken,
  exchangeToken,
  type IssuedCredential,
  idJagAssertionType,
  type PendingRegistration,
  registerWithEmail,
  registerWithIdJag,
  revokeCredential,
} from "./registration.ts";
export { RegistrationError } from "./registration-error.ts";
