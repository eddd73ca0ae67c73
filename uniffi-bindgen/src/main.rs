//! The bindings generator, built from the same uniffi version as `tongcheng-ffi` (the two must
//! match). Used by `scripts/bindings.sh` in library mode.

#![forbid(unsafe_code)]

fn main() {
    uniffi::uniffi_bindgen_main()
}
