//! Any string into `Name::from_uri`; an accepted name prints to a canonical URI
//! that parses back to the same name and prints identically.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ndnlab_wire::Name;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(n) = Name::from_uri(s) else {
        return;
    };
    let uri = n.to_string();
    let back = Name::from_uri(&uri).expect("canonical URI parses");
    assert_eq!(back, n);
    assert_eq!(back.to_string(), uri);
    assert_eq!(Name::decode(n.to_wire()).expect("encoded name decodes"), n);
});
