/**
 * Vitest's JSON reporter, with what each test file cost in full (vitest.config.ts uses it). Its
 * `startTime`/`endTime` span a file's tests only; each entry of `testResults` here also has, in ms:
 * `prepareDuration` (the worker made ready for the file), `collectDuration` (the file and its imports
 * loaded, top-level awaits such as starting PostgreSQL included), `setupDuration` (setup files) and
 * `duration` (its hooks and tests, the figure the console prints beside the file). `npm test` writes
 * it to test-artifacts/vitest.json; scripts/slowest-tests.mjs reads it.
 */
import { JsonReporter, type TestModule } from "vitest/node";

type Costs = Pick<
  ReturnType<TestModule["diagnostic"]>,
  "prepareDuration" | "collectDuration" | "setupDuration" | "duration"
>;

export class JsonReportWithFileCosts extends JsonReporter {
  private costs = new Map<string, Costs>();

  override async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    for (const m of testModules) {
      const { prepareDuration, collectDuration, setupDuration, duration } = m.diagnostic();
      this.costs.set(m.moduleId, { prepareDuration, collectDuration, setupDuration, duration });
    }
    await super.onTestRunEnd(testModules);
  }

  override async writeReport(report: string): Promise<void> {
    const json = JSON.parse(report) as { testResults?: { name: string }[] };
    for (const file of json.testResults ?? []) Object.assign(file, this.costs.get(file.name));
    await super.writeReport(JSON.stringify(json));
  }
}
