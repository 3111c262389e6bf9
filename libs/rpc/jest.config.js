module.exports = {
  displayName: 'rpc',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/rpc',
};
