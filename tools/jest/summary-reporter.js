// Writes each Jest run's totals to JEST_SUMMARY_DIR so `npm test` can print one line for all projects.
const fs = require('node:fs');
const path = require('node:path');

class SummaryReporter {
  constructor(globalConfig) {
    this.globalConfig = globalConfig;
  }

  onRunComplete(_contexts, results) {
    const dir = process.env.JEST_SUMMARY_DIR;
    if (!dir) return;
    fs.mkdirSync(dir, { recursive: true });
    const name = path.basename(this.globalConfig.rootDir) + '-' + process.pid + '.json';
    const counts = {
      passed: results.numPassedTests,
      failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
      skipped: results.numPendingTests + results.numTodoTests,
    };
    fs.writeFileSync(path.join(dir, name), JSON.stringify(counts));
  }
}

module.exports = SummaryReporter;
