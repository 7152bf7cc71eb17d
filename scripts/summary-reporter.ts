/**
 * Prints one plain closing line, `tests: N passed, N failed, N skipped`, after vitest's own
 * report, so tools that read only the last lines can count the run; the line before it names the
 * Node that ran the suite (`.ci/run` runs it on several). Failed tests are named above it (file,
 * full name, first line of the error), since a tool that reads only the tail would otherwise
 * learn that something failed but not what.
 */
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    const failures: string[] = [];
    for (const module of testModules) {
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) {
        failed++;
        const error = module.errors()[0];
        failures.push(`${module.moduleId}: ${firstLine(error?.message)}`);
      }
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') passed++;
        else if (result.state === 'failed') {
          failed++;
          failures.push(
            `${module.project.name} ${module.relativeModuleId} > ${test.fullName}: ${firstLine(result.errors[0]?.message)}`,
          );
        } else skipped++;
      }
    }
    const failedList = failures.map((failure) => `FAILED ${failure}\n`).join('');
    process.stdout.write(
      `\n${failedList}Node ${process.versions.node}\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`,
    );
  }
}

function firstLine(message: string | undefined): string {
  return (message ?? 'no error message').split('\n', 1)[0]?.slice(0, 300) ?? '';
}
