// The cloud_i area: snapshot schedules of droplets and volumes. Both kinds
// share every verb, so one set of handlers serves the two path prefixes.
import { listPage, type ListDef } from '../listing.js';
import { conflictError, noContent, notFound, okData } from '../reply.js';
import { renderMachine, renderMachineSnapshot } from '../render.js';
import type { RouteContext, RouteDef } from '../routing.js';
import type { Runtime } from '../runtime.js';
import { makeTags, type MachineKind, type MachineRecord, type MachineSnapshotRecord, type Retention } from '../store.js';
import { fileStamp, randInt } from '../util.js';
import { Validation } from '../validate.js';

export const MACHINE_STATUSES = ['destroyed', 'inactive', 'paused', 'running', 'active'] as const;
export const MACHINE_SNAPSHOT_STATUSES = ['failed', 'in-progress', 'completed', 'transferring', 'expired'] as const;

const machineSnapshotList: ListDef<MachineSnapshotRecord> = {
  filters: [
    { param: 'status', kind: 'enum', values: MACHINE_SNAPSHOT_STATUSES, matches: (s, status) => s.status === status },
    { param: 'tags', kind: 'tags', get: (s) => s.tags },
    { param: 'started_since', kind: 'since', get: (s) => s.started_at },
    { param: 'completed_since', kind: 'since', get: (s) => s.completed_at },
  ],
  sort: {
    id: (s) => s.id,
    name: (s) => s.name,
    size: (s) => s.size,
    started_at: (s) => s.started_at,
    completed_at: (s) => s.completed_at,
  },
};

/** Sizes read as numbers where they are numbers ("100GiB"), so 20GiB sorts before 100GiB. */
function sizeOrder(machine: MachineRecord): string | number {
  const m = /^(\d+(?:\.\d+)?)\s*gi?b$/i.exec(machine.size);
  return m ? Number(m[1]) : machine.size;
}

function machineList(kind: MachineKind): ListDef<MachineRecord> {
  const filters: ListDef<MachineRecord>['filters'] = [
    { param: 'name', kind: 'similar', get: (m) => m.name },
    ...(kind === 'droplet' ? [{ param: 'host', kind: 'exact' as const, get: (m: MachineRecord) => m.host }] : []),
    { param: 'status', kind: 'enum', values: MACHINE_STATUSES, matches: (m, status) => m.status === status },
    { param: 'modified_since', kind: 'since', get: (m) => m.updated_at },
  ];
  const sort: ListDef<MachineRecord>['sort'] = {
    id: (m) => m.id,
    name: (m) => m.name,
    ...(kind === 'droplet' ? { host: (m: MachineRecord) => m.host } : {}),
    size: sizeOrder,
    created_at: (m) => m.created_at,
  };
  return { filters, sort };
}

/** Reads the schedule fields of activate (all required) or update (all optional). */
function readSchedule(v: Validation, kind: MachineKind, input: RouteContext['input'], required: boolean) {
  const frequency = v.integer('frequency', { required, min: 1, max: 168 });
  const given = v.object('retention', { required });
  let retention: Partial<Retention> | undefined;
  if (given) {
    retention = {};
    for (const key of ['hourly', 'daily', 'weekly', 'monthly'] as const) {
      const count = v.integer(`retention.${key}`, { min: 0 });
      if (count !== undefined) retention[key] = count;
    }
  }
  const timezone = v.timezone('timezone', { required });
  const runOffset = v.integer('run_offset', { min: 0, max: 23 });
  let secondaryRegion: string | null | undefined;
  if (kind === 'droplet' && Object.hasOwn(input, 'secondary_region')) {
    secondaryRegion = input.secondary_region === null ? null : v.string('secondary_region');
  }
  return { frequency, retention, timezone, runOffset, secondaryRegion };
}

function applySchedule(rt: Runtime, machine: MachineRecord, s: ReturnType<typeof readSchedule>, status?: string): void {
  const retention: Retention = { ...machine.retention, ...s.retention };
  rt.store.machines(machine.kind).patch(machine, {
    frequency: s.frequency ?? machine.frequency,
    retention,
    timezone: s.timezone ?? machine.timezone,
    run_offset: s.runOffset ?? machine.run_offset,
    secondary_region: s.secondaryRegion === undefined ? machine.secondary_region : s.secondaryRegion,
    status: status ?? machine.status,
    updated_at: rt.now(),
  });
}

function requireAlive(machine: MachineRecord): void {
  if (machine.status === 'destroyed') throw conflictError('status', `The ${machine.kind} has been destroyed.`);
}

/** Moves a machine's status, refusing moves that make no sense from where it is. */
function transition(rt: Runtime, machine: MachineRecord, to: string, allowedFrom: readonly string[]): void {
  requireAlive(machine);
  if (!allowedFrom.includes(machine.status)) {
    throw conflictError('status', `The ${machine.kind} cannot go from ${machine.status} to ${to}.`);
  }
  rt.store.machines(machine.kind).patch(machine, { status: to, updated_at: rt.now() });
}

function takeManualSnapshot(rt: Runtime, machine: MachineRecord): void {
  const now = rt.now();
  const table = rt.store.machineSnapshots;
  const snapshot = table.insert({
    id: table.nextId(),
    machine_kind: machine.kind,
    machine_id: machine.id,
    name: `${machine.name}-manual-${fileStamp(now)}`,
    status: 'in-progress',
    size: 0,
    tags: makeTags(['manual']),
    started_at: now,
    completed_at: null,
  });
  rt.later(rt.tickMs * 2, () => {
    if (!table.get(snapshot.id)) return;
    table.patch(snapshot, { status: 'completed', completed_at: rt.now(), size: randInt(rt.rng, 800, 9000) * 1024 * 1024 });
  });
}

function machineRoutes(kind: MachineKind): RouteDef[] {
  const plural = `${kind}s`;
  const param = `${kind}_id`;
  const base = `/v1/cloud_i/${plural}`;
  const list = machineList(kind);
  const find = (c: RouteContext) => c.rt.store.machines(kind).require(c.params[param]!);

  return [
    {
      method: 'GET',
      path: base,
      handler: (c) => listPage(c, c.rt.store.machines(kind), list, (m) => renderMachine(c.rt, m, { withSnapshots: false })),
    },
    {
      method: 'GET',
      path: `${base}/{${param}}`,
      handler: (c) => okData(renderMachine(c.rt, find(c), { withSnapshots: true })),
    },
    {
      method: 'PATCH',
      path: `${base}/{${param}}`,
      handler: (c) => {
        const machine = find(c);
        const v = new Validation(c.input);
        const schedule = readSchedule(v, kind, c.input, false);
        v.check();
        requireAlive(machine);
        applySchedule(c.rt, machine, schedule);
        return noContent();
      },
    },
    {
      method: 'PATCH',
      path: `${base}/{${param}}/activate`,
      handler: (c) => {
        const machine = find(c);
        const v = new Validation(c.input);
        const schedule = readSchedule(v, kind, c.input, true);
        v.check();
        requireAlive(machine);
        applySchedule(c.rt, machine, schedule, 'active');
        return noContent();
      },
    },
    {
      method: 'PATCH',
      path: `${base}/{${param}}/pause`,
      handler: (c) => {
        transition(c.rt, find(c), 'paused', ['active', 'running']);
        return noContent();
      },
    },
    {
      method: 'PATCH',
      path: `${base}/{${param}}/resume`,
      handler: (c) => {
        transition(c.rt, find(c), 'active', ['paused']);
        return noContent();
      },
    },
    {
      method: 'PATCH',
      path: `${base}/{${param}}/deactivate`,
      handler: (c) => {
        transition(c.rt, find(c), 'inactive', ['active', 'running', 'paused', 'inactive']);
        return noContent();
      },
    },
    {
      method: 'GET',
      path: `${base}/{${param}}/snapshots`,
      handler: (c) => {
        const machine = find(c);
        return listPage(c, c.rt.store.machineSnapshots, machineSnapshotList, renderMachineSnapshot, {
          key: `${kind}:${machine.id}`,
          test: (s) => s.machine_kind === kind && s.machine_id === machine.id,
        });
      },
    },
    {
      method: 'POST',
      path: `${base}/{${param}}/snapshots/manual`,
      handler: (c) => {
        const machine = find(c);
        requireAlive(machine);
        takeManualSnapshot(c.rt, machine);
        return noContent();
      },
    },
    {
      method: 'DELETE',
      path: `${base}/{${param}}/snapshots/{snapshot_id}`,
      handler: (c) => {
        const machine = find(c);
        const id = c.params.snapshot_id!;
        const snapshot = /^\d+$/.test(id) ? c.rt.store.machineSnapshots.get(Number(id)) : undefined;
        if (!snapshot || snapshot.machine_kind !== kind || snapshot.machine_id !== machine.id) throw notFound('Snapshot', id);
        c.rt.store.machineSnapshots.remove(snapshot);
        return noContent();
      },
    },
    {
      method: 'DELETE',
      path: `${base}/{${param}}/snapshots`,
      handler: (c) => {
        const machine = find(c);
        c.rt.store.machineSnapshots.removeWhere((s) => s.machine_kind === kind && s.machine_id === machine.id);
        return noContent();
      },
    },
  ];
}

export const cloudIRoutes: RouteDef[] = [...machineRoutes('droplet'), ...machineRoutes('volume')];
