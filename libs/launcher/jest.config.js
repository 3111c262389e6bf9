module.exports = {
  displayName: 'launcher',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/launcher',
};
