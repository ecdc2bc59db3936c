// Types for `coinselect` 3.x (bitcoinjs/coinselect), which ships none. Only what we use.
declare module 'coinselect' {
  namespace coinSelect {
    interface Input {
      value: number;
      /** Only `.length` is read: bytes the input adds to the transaction. */
      script?: { length: number };
    }
    interface Output {
      value?: number;
      script?: { length: number };
    }
    interface Result<I, O> {
      /** Undefined when the UTXOs cannot pay for the outputs and fee. */
      inputs?: I[];
      /** The outputs passed in, plus a change output `{ value }` (no script) when worth one. */
      outputs?: (O | { value: number; script?: undefined })[];
      fee: number;
    }
  }
  /** Blackjack (no change) first, then accumulative; `feeRate` in satoshis per byte, an integer. */
  function coinSelect<I extends coinSelect.Input, O extends coinSelect.Output>(utxos: I[], outputs: O[], feeRate: number): coinSelect.Result<I, O>;
  export = coinSelect;
}
