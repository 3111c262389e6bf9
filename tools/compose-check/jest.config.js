module.exports = {
  displayName: 'compose-check',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/tools/compose-check',
};
