// A raw fake host for player-side hostile cases (reliability-tests §7.3 H4, H5): a net.Server on 127.0.0.1 that
// speaks the handshake by hand (Challenge, then a sealed Welcome for any Join) and lets the test inject any
// bytes afterwards, and records and opens what the player sends.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { decodeMessage, openMessage, sealedFrame, unsealedFrame, type Message } from '../../actors/wire.ts';
import { nodeCrypto } from '../../adapters/crypto/nodeCrypto.ts';
import { FrameDecoder, HOST_SENDER, type Frame } from '../../protocol/frame.ts';
import { Kind, type KindName, type Payloads } from '../../protocol/messages/index.ts';
import { Opener, Sealer } from '../../protocol/seal.ts';
import { KEY, waitFor } from './session.ts';

export class FakeHost {
  readonly server: Server;
  readonly port: number;
  /** Sender 0's one sealer: the fake host never repeats a counter either. */
  readonly sealer = new Sealer(nodeCrypto.aesGcm(KEY), HOST_SENDER);
  /** Frames the player sent, in order. */
  readonly frames: Frame[] = [];
  /** Sealed messages the player sent that opened under KEY, with the frame they came in. */
  readonly opened: { frame: Frame; message: Message }[] = [];
  socket: Socket | undefined;
  join: Payloads['Join'] | undefined;
  private readonly opener = new Opener(nodeCrypto.aesGcm(KEY));

  private constructor(server: Server, port: number) {
    this.server = server;
    this.port = port;
  }

  /**
   * Listens; each connection gets a Challenge (`challenge`: other bytes instead) and, for a Join, a Welcome
   * naming it player `you`.
   */
  static async start(you = 1, challenge?: Uint8Array): Promise<FakeHost> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, resolve));
    const fake = new FakeHost(server, (server.address() as AddressInfo).port);
    server.on('connection', (socket) => fake.accept(socket, you, challenge));
    return fake;
  }

  private accept(socket: Socket, you: number, challenge: Uint8Array | undefined): void {
    this.socket = socket;
    socket.on('error', () => {});
    const decoder = new FrameDecoder();
    socket.on('data', (chunk) => {
      for (const frame of decoder.push(chunk)) {
        this.frames.push(frame);
        if (frame.header.kind === Kind.Join) {
          const d = decodeMessage(Kind.Join, frame.body);
          if (d.ok && d.message.kind === 'Join') {
            this.join = d.message.payload;
            this.send('Welcome', this.welcome(you, d.message.payload.name));
          }
        } else {
          const m = openMessage(this.opener, frame);
          if (m.ok) this.opened.push({ frame, message: m.message });
        }
      }
    });
    socket.write(challenge ?? unsealedFrame('Challenge', { nonce: nodeCrypto.randomBytes(16), protocol: 1, version: '0.1' }));
  }

  welcome(you: number, name: string): Payloads['Welcome'] {
    return {
      you,
      hostName: 'fake',
      version: '0.1',
      players: [
        { id: 0, name: 'fake', ready: true },
        { id: you, name, ready: false },
      ],
      session: { started: false, speed: 0, lead: 2 },
    };
  }

  /** Seals as sender 0 and writes. */
  send<K extends KindName>(kind: K, payload: Payloads[K]): void {
    const frame = sealedFrame(this.sealer, kind, payload);
    if (!frame) throw new RangeError(`${kind}: larger than a frame`);
    this.write(frame);
  }

  write(bytes: Uint8Array): void {
    this.socket?.write(bytes);
  }

  /** Waits for the n-th sealed message from the player (1-based count). */
  nth(n: number): Promise<{ frame: Frame; message: Message }> {
    return waitFor(() => this.opened[n - 1], 3000, `player message ${n}`);
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
