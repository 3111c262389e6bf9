// The floor of the read benchmark, a program of its own (dist/tools/bench/floor-server.js): the
// catalog's query for each request as a statement of its own, behind the smallest possible Node
// HTTP server. The catalog sends the reads of one event-loop turn together; this floor is the
// plain way, one statement per request. PORT and DATABASE_URL from the bench; 'ready' when listening.
import * as http from 'node:http';
import { Pool } from 'pg';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const categoryById = 'select id, name, description from category where id = $1';
const firstPets = 'select id, name, category_id as "categoryId", status from pet where id > $1 order by id limit $2';

const server = http.createServer(async (request, response) => {
  try {
    const url = new URL(request.url ?? '/', 'http://floor');
    let body: unknown;
    if (url.pathname.startsWith('/categories/')) {
      const { rows } = await pool.query(categoryById, [url.pathname.slice('/categories/'.length)]);
      body = rows[0];
    } else {
      const limit = Number(url.searchParams.get('limit') ?? 20);
      const { rows } = await pool.query(firstPets, [0, limit + 1]);
      body = rows.slice(0, limit);
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  } catch (error) {
    response.writeHead(500);
    response.end(String(error));
  }
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.send?.('ready'));
process.on('SIGTERM', () => server.close(() => pool.end().then(() => process.exit(0))));
