package com.tongcheng.presenter

import com.tongcheng.core.TongchengException

// The library's errors carry their words in `detail` and, for the server's answers, the
// server's stable error code in `code`: screens switch on the code, never on the words.

/** What went wrong, in words (Kotlin's own `message` lists the fields instead). */
val TongchengException.text: String
    get() = when (this) {
        is TongchengException.IllegalAction -> detail
        is TongchengException.InvalidInput -> detail
        is TongchengException.Storage -> detail
        is TongchengException.UnusableHistory -> detail
        is TongchengException.NotFound -> detail
        is TongchengException.Network -> detail
        is TongchengException.NotLoggedIn -> detail
        is TongchengException.Server -> detail
        is TongchengException.Cancelled -> detail
    }

/** The server's stable error code (`queue_timeout`, `room_full`, …) when the server refused;
 *  null for what the phone found itself. */
val TongchengException.serverCode: String?
    get() = when (this) {
        is TongchengException.NotFound -> code
        is TongchengException.NotLoggedIn -> code
        is TongchengException.Server -> code
        else -> null
    }
