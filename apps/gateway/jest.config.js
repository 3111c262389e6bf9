module.exports = {
  displayName: 'gateway',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/apps/gateway',
  // Several tests wait out an RPC budget (1.5 s, or 3 s held): room for that on a busy machine.
  testTimeout: 15_000,
};
