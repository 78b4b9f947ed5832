// The phone's microphone as 16-bit mono frames at 16 kHz, 512 samples each, posted to the page. The page asks its
// audio context for 16 kHz, which browsers resample to themselves; where one runs at another rate, each output sample
// is the mean of the input samples it stands for (a plain low-pass before dropping samples).
const RATE = 16000;
const FRAME = 512;

class Capture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.frame = new Int16Array(FRAME);
    this.filled = 0;
    this.step = sampleRate / RATE;
    this.sum = 0;
    this.count = 0;
    this.owed = 0;
  }

  process(inputs) {
    const input = inputs[0] && inputs[0][0];
    if (!input) return true;
    for (let i = 0; i < input.length; i++) {
      this.sum += input[i];
      this.count += 1;
      this.owed += 1;
      if (this.owed >= this.step) {
        this.emit(this.sum / this.count);
        this.sum = 0;
        this.count = 0;
        this.owed -= this.step;
      }
    }
    return true;
  }

  emit(value) {
    const clipped = Math.max(-1, Math.min(1, value));
    this.frame[this.filled++] = clipped < 0 ? clipped * 32768 : clipped * 32767;
    if (this.filled === FRAME) {
      this.port.postMessage(this.frame.buffer, [this.frame.buffer]);
      this.frame = new Int16Array(FRAME);
      this.filled = 0;
    }
  }
}

registerProcessor("capture", Capture);
