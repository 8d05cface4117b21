/**
 * Why a reconcile runs. Triggers that arrive while a reconcile is running (or while backing off) are
 * merged into one follow-up run: the merge keeps every reason, so the log says why, and so a file
 * change is not downgraded to a drift check under `--no-self-heal` when an interval tick joins it.
 */

/** The reasons of one reconcile. At least one of `startup`, `interval`, `files` is set. */
export interface Trigger {
  /** The first reconcile after `tgw watch` started. */
  startup: boolean;
  /** The periodic reconcile (`--interval`). */
  interval: boolean;
  /** Files whose change caused the run (absolute paths, sorted, no duplicates); empty when none. */
  files: string[];
  /** 0 for a first attempt; n for the n-th retry of a failed reconcile (the reasons are kept). */
  retry: number;
}

/** The trigger of the first reconcile. */
export function startupTrigger(): Trigger {
  return { startup: true, interval: false, files: [], retry: 0 };
}

/** The trigger of a periodic reconcile. */
export function intervalTrigger(): Trigger {
  return { startup: false, interval: true, files: [], retry: 0 };
}

/** The trigger of a change to `files` (after debouncing). */
export function fileTrigger(files: Iterable<string>): Trigger {
  return { startup: false, interval: false, files: [...new Set(files)].sort(), retry: 0 };
}

/** One trigger with the reasons of both; `retry` is the larger of the two. */
export function mergeTriggers(a: Trigger | undefined, b: Trigger): Trigger {
  if (a === undefined) return b;
  return {
    startup: a.startup || b.startup,
    interval: a.interval || b.interval,
    files: [...new Set([...a.files, ...b.files])].sort(),
    retry: Math.max(a.retry, b.retry),
  };
}

/** True for a first attempt caused by file changes alone (not startup, the interval or a retry). */
export function onlyFiles(t: Trigger): boolean {
  return t.files.length > 0 && !t.startup && !t.interval && t.retry === 0;
}

/** True when the run was asked for by a change of the configuration (or by starting up). */
export function isConfigChange(t: Trigger): boolean {
  return t.startup || t.files.length > 0;
}

/**
 * Human description, e.g. `startup`, `interval`, `file change: api_keys.yaml`,
 * `file change: a.yaml, b.yaml + interval, retry 2`.
 * @param display turns an absolute path into what to show (usually relative to the working directory).
 */
export function describeTrigger(t: Trigger, display: (file: string) => string = (f) => f): string {
  const parts: string[] = [];
  if (t.startup) parts.push("startup");
  if (t.files.length > 0) {
    const shown = t.files.slice(0, 3).map(display).join(", ");
    const more = t.files.length > 3 ? ` and ${t.files.length - 3} more` : "";
    parts.push(`file change: ${shown}${more}`);
  }
  if (t.interval) parts.push("interval");
  const reasons = parts.join(" + ");
  return t.retry > 0 ? `${reasons}, retry ${t.retry}` : reasons;
}
