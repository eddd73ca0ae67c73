//! Chinese Official (国标) scoring: placeholder until the scorer lands.
