import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { CreateIntegrationInput, Integration, IntegrationKind } from "@weft/contract";
import { type FormEvent, type ReactNode, useId, useState } from "react";
import { weftQuery } from "../../api/weft-query.ts";
import { ErrorNotice } from "../../components/error-notice.tsx";
import { QueryTable } from "../../components/query-table.tsx";
import { TimeText } from "../../components/time-text.tsx";

/**
 * The project's integrations with their secrets masked (the server never sends a value back), and
 * for those who may change the project: create, replace a secret, delete after a confirmation.
 */
export function IntegrationsSection({ projectId, writable }: { projectId: string; writable: boolean }): ReactNode {
  const queryClient = useQueryClient();
  const integrations = useQuery(
    weftQuery.integrations.list.queryOptions({ input: { projectId, pagination: { first: 100 } } }),
  );
  const refresh = (): Promise<void> =>
    queryClient.invalidateQueries({ queryKey: weftQuery.integrations.list.key({ input: { projectId } }) });
  const rows = integrations.data?.results ?? [];
  return (
    <section className="card stack" aria-labelledby="integrations-heading">
      <h2 id="integrations-heading">Integrations</h2>
      <QueryTable
        query={integrations}
        loading="integrations"
        empty={
          <>
            No integrations yet: add one here or run <code>weft integrations create</code>; workflows read it as{" "}
            <code>ctx.integrations.&lt;name&gt;</code>.
          </>
        }
        label="Table of integrations"
        rows={rows}
        rowKey={(integration) => integration.name}
        columns={[
          { name: "Name", cell: (integration) => <code>{integration.name}</code> },
          { name: "Kind", cell: (integration) => integration.kind },
          { name: "Settings", cell: settingsOf },
          {
            name: "Secrets",
            cell: (integration) => (
              <ul className="plain-list">
                {Object.entries(integration.secrets).map(([secret, hint]) => (
                  <li key={secret}>
                    {secret} <code>{hint.hint}</code>
                  </li>
                ))}
              </ul>
            ),
          },
          { name: "Updated", cell: (integration) => <TimeText at={integration.updatedAt} /> },
          ...(writable
            ? [
                {
                  name: "Change",
                  className: "stack",
                  cell: (integration: Integration) => (
                    <>
                      <ReplaceSecret projectId={projectId} integration={integration} onChanged={refresh} />
                      <DeleteIntegration projectId={projectId} name={integration.name} onDeleted={refresh} />
                    </>
                  ),
                },
              ]
            : []),
        ]}
      />
      {writable ? <CreateIntegration projectId={projectId} onCreated={refresh} /> : null}
    </section>
  );
}

function settingsOf(integration: Integration): string {
  const entries = Object.entries(integration.config);
  return entries.length === 0 ? "—" : entries.map(([key, value]) => `${key}: ${String(value)}`).join(", ");
}

/** The secret names a kind has; an `http` integration's are its header names, chosen when it is made. */
const fixedSecretName: Record<IntegrationKind, string | undefined> = {
  secret: "value",
  http: undefined,
  smtp: "password",
};
// Every kind, from the record the compiler holds complete: a value imported from @weft/contract would
// bring zod into this page's chunk.
const integrationKinds = Object.keys(fixedSecretName) as IntegrationKind[];

function CreateIntegration({ projectId, onCreated }: { projectId: string; onCreated: () => Promise<void> }): ReactNode {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<IntegrationKind>("secret");
  const [baseUrl, setBaseUrl] = useState("");
  const [host, setHost] = useState("");
  const [port, setPort] = useState("587");
  const [user, setUser] = useState("");
  const [header, setHeader] = useState("authorization");
  const [value, setValue] = useState("");
  const ids = { name: useId(), kind: useId(), baseUrl: useId(), host: useId(), port: useId(), user: useId() };
  const headerId = useId();
  const valueId = useId();
  const create = useMutation(
    weftQuery.integrations.create.mutationOptions({
      onSuccess: async () => {
        setName("");
        setValue("");
        await onCreated();
      },
    }),
  );
  const inputOf = (): CreateIntegrationInput => {
    const target = { projectId, name: name.trim() };
    if (kind === "http") {
      return { ...target, kind, config: { baseUrl: baseUrl.trim() }, secrets: value === "" ? {} : { [header]: value } };
    }
    if (kind === "smtp") {
      return { ...target, kind, config: { host: host.trim(), port: Number(port), user }, secrets: { password: value } };
    }
    return { ...target, kind, config: {}, secrets: { value } };
  };
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    create.mutate(inputOf());
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Add an integration">
      <div>
        <label htmlFor={ids.name}>Name</label>
        <input
          id={ids.name}
          required
          pattern="[a-z0-9_\-]{1,64}"
          title="1 to 64 characters of a-z, 0-9, _ and -"
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
      </div>
      <div>
        <label htmlFor={ids.kind}>Kind</label>
        <select id={ids.kind} value={kind} onChange={(event) => setKind(event.target.value as IntegrationKind)}>
          {integrationKinds.map((candidate) => (
            <option key={candidate} value={candidate}>
              {candidate}
            </option>
          ))}
        </select>
      </div>
      {kind === "http" ? (
        <>
          <div>
            <label htmlFor={ids.baseUrl}>Base URL</label>
            <input
              id={ids.baseUrl}
              type="url"
              required
              value={baseUrl}
              onChange={(event) => setBaseUrl(event.target.value)}
            />
          </div>
          <div>
            <label htmlFor={headerId}>Secret header</label>
            <input id={headerId} value={header} onChange={(event) => setHeader(event.target.value)} />
          </div>
        </>
      ) : null}
      {kind === "smtp" ? (
        <>
          <div>
            <label htmlFor={ids.host}>Host</label>
            <input id={ids.host} required value={host} onChange={(event) => setHost(event.target.value)} />
          </div>
          <div>
            <label htmlFor={ids.port}>Port</label>
            <input
              id={ids.port}
              type="number"
              min={1}
              max={65535}
              required
              value={port}
              onChange={(event) => setPort(event.target.value)}
            />
          </div>
          <div>
            <label htmlFor={ids.user}>User</label>
            <input id={ids.user} required value={user} onChange={(event) => setUser(event.target.value)} />
          </div>
        </>
      ) : null}
      <div>
        <label htmlFor={valueId}>{kind === "http" ? "Header value" : `Secret (${fixedSecretName[kind]})`}</label>
        <input
          id={valueId}
          type="password"
          autoComplete="off"
          required={kind !== "http"}
          value={value}
          onChange={(event) => setValue(event.target.value)}
        />
      </div>
      <div className="form-end">
        <button type="submit" className="button" disabled={create.isPending}>
          Add integration
        </button>
      </div>
      <ErrorNotice error={create.error} />
    </form>
  );
}

function ReplaceSecret({
  projectId,
  integration,
  onChanged,
}: {
  projectId: string;
  integration: Integration;
  onChanged: () => Promise<void>;
}): ReactNode {
  const names = Object.keys(integration.secrets);
  const [secret, setSecret] = useState(names[0] ?? fixedSecretName[integration.kind] ?? "");
  const [value, setValue] = useState("");
  const secretId = useId();
  const valueId = useId();
  const update = useMutation(
    weftQuery.integrations.update.mutationOptions({
      onSuccess: async () => {
        setValue("");
        await onChanged();
      },
    }),
  );
  const submit = (event: FormEvent): void => {
    event.preventDefault();
    update.mutate({ projectId, name: integration.name, secrets: { [secret]: value } });
  };
  return (
    <form className="row" onSubmit={submit} aria-label={`Replace a secret of ${integration.name}`}>
      <label htmlFor={secretId} className="visually-hidden">
        Secret of {integration.name}
      </label>
      {integration.kind === "http" ? (
        <input id={secretId} required value={secret} onChange={(event) => setSecret(event.target.value)} />
      ) : (
        <select id={secretId} value={secret} onChange={(event) => setSecret(event.target.value)}>
          {names.map((candidate) => (
            <option key={candidate} value={candidate}>
              {candidate}
            </option>
          ))}
        </select>
      )}
      <label htmlFor={valueId} className="visually-hidden">
        New value for {integration.name}
      </label>
      <input
        id={valueId}
        type="password"
        autoComplete="off"
        required
        placeholder="new value"
        value={value}
        onChange={(event) => setValue(event.target.value)}
      />
      <button type="submit" className="button secondary small" disabled={update.isPending}>
        Replace
      </button>
      <ErrorNotice error={update.error} />
    </form>
  );
}

function DeleteIntegration({
  projectId,
  name,
  onDeleted,
}: {
  projectId: string;
  name: string;
  onDeleted: () => Promise<void>;
}): ReactNode {
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    weftQuery.integrations.delete.mutationOptions({ onSuccess: onDeleted, onSettled: () => setConfirming(false) }),
  );
  return (
    <div className="row">
      {confirming ? (
        <>
          <button
            type="button"
            className="button danger small"
            disabled={remove.isPending}
            onClick={() => remove.mutate({ projectId, name })}
          >
            Yes, delete {name}
          </button>
          <button type="button" className="button secondary small" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button type="button" className="button danger small" onClick={() => setConfirming(true)}>
          Delete {name}…
        </button>
      )}
      <ErrorNotice error={remove.error} />
    </div>
  );
}
