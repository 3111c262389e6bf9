module.exports = {
  displayName: 'service-kit',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/service-kit',
};
