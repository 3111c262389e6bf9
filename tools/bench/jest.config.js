module.exports = {
  displayName: 'bench',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/tools/bench',
  // No suite here needs the test servers the preset's global setup starts (one starts a local echo process).
  globalSetup: undefined,
  globalTeardown: undefined,
};
