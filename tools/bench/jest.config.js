module.exports = {
  displayName: 'bench',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/tools/bench',
  // Pure logic only: no suite here needs the test servers the preset's global setup starts.
  globalSetup: undefined,
  globalTeardown: undefined,
};
