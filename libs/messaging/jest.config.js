module.exports = {
  displayName: 'messaging',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/messaging',
};
