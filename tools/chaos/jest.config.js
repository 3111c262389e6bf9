module.exports = {
  displayName: 'chaos',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/tools/chaos',
};
