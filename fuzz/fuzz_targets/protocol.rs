//! The online protocol on arbitrary text: what a client (or a server) sends is read without a
//! panic, and whatever is read back writes out to a message that reads the same.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_core::protocol::{ClientMsg, ServerMsg};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok(m) = ClientMsg::parse(&text) {
        let again = ClientMsg::parse(&m.to_json()).expect("a written client message reads back");
        assert_eq!(again, m);
    }
    if let Ok(m) = ServerMsg::parse(&text) {
        let again = ServerMsg::parse(&m.to_json()).expect("a written server message reads back");
        assert_eq!(again, m);
    }
});
