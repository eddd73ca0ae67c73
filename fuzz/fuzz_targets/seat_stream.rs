//! One seat's side of the online protocol on arbitrary frames (a hostile or broken server):
//! every line is a frame, read (and its events followed into the seat's view) without a
//! panic; answers and hints are asked for after every frame, 下一桌 is asked for first and an
//! empty line sits the stream at another table.

#![no_main]

use libfuzzer_sys::fuzz_target;
use tongcheng_core::game::Action;
use tongcheng_core::protocol::stream::{OnlineOptions, SeatStream};
use tongcheng_core::tile::Tile;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut s = SeatStream::new(OnlineOptions::default(), [3; 32]);
    let _ = s.join(0);
    let _ = s.ask_next_table("t1", 1);
    for (i, frame) in text.lines().enumerate() {
        // An empty line: the next table, on the same stream.
        if frame.is_empty() {
            let _ = s.sit_at("t2".into(), i as u64);
        }
        let _ = s.receive(frame, i as u64);
        let _ = s.hint();
        let _ = s.act(Action::Pass);
        let _ = s.act(Action::Discard(Tile::from_index(0).expect("a tile")));
        let _ = s.tick(i as u64 * 1_000);
    }
});
