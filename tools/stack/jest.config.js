module.exports = {
  displayName: 'stack',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/tools/stack',
};
