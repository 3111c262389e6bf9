module.exports = {
  displayName: 'observability',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/observability',
};
