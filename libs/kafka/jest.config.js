module.exports = {
  displayName: 'kafka',
  preset: '../../jest.preset.js',
  coverageDirectory: '../../coverage/libs/kafka',
};
