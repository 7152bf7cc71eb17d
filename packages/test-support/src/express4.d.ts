// `express4` is the workspace's alias for `npm:express@^4`; its API is typed by @types/express,
// which covers the surface both majors share.
declare module 'express4' {
  import express = require('express');
  export = express;
}
