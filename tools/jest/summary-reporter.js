// Writes each Jest run's totals, and the names of the tests that failed, to JEST_SUMMARY_DIR so
// `npm test` can close with one line for all projects and the failures above it: CI shows only
// the end of the output, and the projects' own reports scroll far above it.
const fs = require('node:fs');
const path = require('node:path');

const WORKSPACE = path.resolve(__dirname, '../..');

/** A failure's first lines (the assertion, expected and received), before its stack. */
function gist(message) {
  return message
    // eslint-disable-next-line no-control-regex
    .replace(/\u001b\[[0-9;]*m/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0 && !line.startsWith('at '))
    .slice(0, 10)
    .join(' · ')
    .slice(0, 400);
}

class SummaryReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(_contexts, results) {
    const dir = process.env.JEST_SUMMARY_DIR;
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    const name = path.basename(this.globalConfig.rootDir) + '-' + process.pid + '.json';
    const failures = [];
    for (const file of results.testResults) {
      const where = path.relative(WORKSPACE, file.testFilePath);
      // A suite that failed to run (a throw in beforeAll, a syntax error) has no test results.
      if (file.testExecError) failures.push({ where, test: '(the suite did not run)', reason: gist(file.testExecError.message) });
      for (const test of file.testResults) {
        if (test.status === 'failed') failures.push({ where, test: test.fullName, reason: gist(test.failureMessages.join('\n')) });
      }
    }
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
      failures,
    };
    fs.writeFileSync(path.join(dir, name), JSON.stringify(counts));
  }
}

module.exports = SummaryReporter;
