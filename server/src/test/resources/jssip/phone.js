// A JsSIP user agent run by Node for the tests of sipcrypt's WebSocket listeners (RFC 7118).
// Usage: node phone.js WS_URL SIP_URI PASSWORD
// Registers over WS_URL; reads commands from standard input ("call URI", "hangup", "quit") and
// prints one line per event ("registered", "incoming ...", "confirmed", "ended ...", "failed ...").
// Node has no WebRTC: the RTCPeerConnection below only writes and reads SDP (an audio line towards
// the discard port), which is all the SIP signalling under test needs; no media flows.
'use strict';

const readline = require('readline');
const JsSIP = require('jssip');
const NodeWebSocket = require('jssip-node-websocket');

const [url, uri, password] = process.argv.slice(2);
if (!url || !uri || !password) {
  console.log('usage: node phone.js WS_URL SIP_URI PASSWORD');
  process.exit(2);
}

// The SDP side of a peer connection: an offer of one audio line, an answer echoing the offer's
// first payload type. ICE gathering is complete at once (no candidates are gathered).
class SdpOnlyPeerConnection extends EventTarget {
  constructor() {
    super();
    this.iceGatheringState = 'complete';
    this.iceConnectionState = 'new';
    this.signalingState = 'stable';
    this.localDescription = null;
    this.remoteDescription = null;
  }
  static sdp(payload, rtpmap) {
    const id = Date.now();
    return ['v=0', `o=- ${id} ${id} IN IP4 127.0.0.1`, 's=-', 'c=IN IP4 127.0.0.1', 't=0 0',
      `m=audio 9 RTP/AVP ${payload}`, `a=rtpmap:${payload} ${rtpmap}`, 'a=sendrecv', ''].join('\r\n');
  }
  async createOffer() {
    return { type: 'offer', sdp: SdpOnlyPeerConnection.sdp(111, 'opus/48000/2') };
  }
  async createAnswer() {
    const offer = this.remoteDescription ? this.remoteDescription.sdp : '';
    const m = /^m=audio \d+ [^ ]+ (\d+)/m.exec(offer);
    const payload = m ? m[1] : '0';
    const map = new RegExp(`^a=rtpmap:${payload} (.+)$`, 'm').exec(offer);
    return { type: 'answer', sdp: SdpOnlyPeerConnection.sdp(payload, map ? map[1].trim() : 'PCMU/8000') };
  }
  async setLocalDescription(d) { this.localDescription = d; }
  async setRemoteDescription(d) { this.remoteDescription = d; }
  getSenders() { return []; }
  getReceivers() { return []; }
  getLocalStreams() { return []; }
  getRemoteStreams() { return []; }
  addTrack() { return {}; }
  close() { this.signalingState = 'closed'; }
}
globalThis.window = globalThis;
globalThis.RTCPeerConnection = SdpOnlyPeerConnection;
globalThis.RTCSessionDescription = class { constructor(init) { Object.assign(this, init); } };

const socket = new NodeWebSocket(url);
const ua = new JsSIP.UA({
  sockets: [socket],
  uri,
  password,
  register: true,
  session_timers: false,
  connection_recovery_min_interval: 1,
  connection_recovery_max_interval: 2,
});
const noMedia = { mediaConstraints: { audio: false, video: false } };
let session = null;

function follow(s) {
  session = s;
  s.on('confirmed', () => console.log('confirmed'));
  s.on('ended', (e) => { console.log(`ended ${e.originator} ${e.cause}`); session = null; });
  s.on('failed', (e) => {
    const status = e.message && e.message.status_code ? ` ${e.message.status_code}` : '';
    console.log(`failed ${e.originator} ${e.cause}${status}`);
    session = null;
  });
}

ua.on('connected', () => console.log('connected'));
ua.on('disconnected', () => console.log('disconnected'));
ua.on('registered', () => console.log('registered'));
ua.on('registrationFailed', (e) => console.log(`registration failed ${e.cause}`));
ua.on('newRTCSession', (e) => {
  if (e.originator !== 'remote') {
    return;
  }
  console.log(`incoming ${e.request.from.uri.toString()} via ${e.request.getHeaders("Via").join(",")} rr ${e.request.getHeaders("Record-Route").join(",")}`);
  follow(e.session);
  e.session.answer(noMedia);
});
ua.start();

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(/\s+/, 2);
  if (command === 'call') {
    follow(ua.call(arg, noMedia));
  } else if (command === 'hangup' && session) {
    session.terminate();
  } else if (command === 'quit') {
    ua.stop();
    setTimeout(() => process.exit(0), 500);
  }
}).on('close', () => process.exit(0));
