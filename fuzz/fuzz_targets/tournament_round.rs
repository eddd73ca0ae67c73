//! A tournament round's published file from outside (`tongcheng tournament verify`): any
//! text is read to a round or refused, and a round read gets a verdict, never a panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_core::tournament::simulate::RoundRecord;

fuzz_target!(|data: &[u8]| {
    if let Ok(r) = serde_json::from_slice::<RoundRecord>(data) {
        let _ = r.verify();
        let _ = r.table_results();
    }
});
