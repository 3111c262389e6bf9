const { toolWebpackConfig } = require('../webpack/tool-webpack-config');

module.exports = toolWebpackConfig(__dirname);
