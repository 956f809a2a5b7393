import type { FastifyInstance } from 'fastify';

/**
 * How many requests the instance is answering now, from the moment one arrives until its answer
 * is sent or its connection closes. Background work that can wait (webhook deliveries) asks
 * `busy()` and gives the CPU to the requests meanwhile.
 */
export class RequestActivity {
  private answering = 0;

  busy(): boolean {
    return this.answering > 0;
  }

  register(app: FastifyInstance): void {
    app.addHook('onRequest', (_request, reply, done) => {
      this.answering += 1;
      // 'close' comes once per response: after it is sent, or when its connection went first.
      reply.raw.once('close', () => {
        this.answering -= 1;
      });
      done();
    });
  }
}
