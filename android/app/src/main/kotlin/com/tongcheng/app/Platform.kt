package com.tongcheng.app

import android.media.AudioManager
import android.media.ToneGenerator
import android.security.keystore.KeyGenParameterSpec
import android.security.keystore.KeyProperties
import com.tongcheng.core.KeyVault
import com.tongcheng.model.Sound
import java.io.File
import java.security.KeyStore
import javax.crypto.Cipher
import javax.crypto.KeyGenerator
import javax.crypto.SecretKey
import javax.crypto.spec.GCMParameterSpec

/**
 * The device key's 32 secret bytes, kept encrypted under an AES key that never leaves the
 * Android Keystore (hardware-backed where the phone has it). The model signs with them in
 * Rust; nothing else reads them.
 */
class KeystoreVault(private val dir: File) : KeyVault {
    private val file get() = File(dir, "device.key")

    private fun wrapKey(): SecretKey {
        val ks = KeyStore.getInstance(KEYSTORE).apply { load(null) }
        (ks.getKey(ALIAS, null) as? SecretKey)?.let { return it }
        val gen = KeyGenerator.getInstance(KeyProperties.KEY_ALGORITHM_AES, KEYSTORE)
        gen.init(
            KeyGenParameterSpec.Builder(ALIAS, KeyProperties.PURPOSE_ENCRYPT or KeyProperties.PURPOSE_DECRYPT)
                .setBlockModes(KeyProperties.BLOCK_MODE_GCM)
                .setEncryptionPaddings(KeyProperties.ENCRYPTION_PADDING_NONE)
                .build(),
        )
        return gen.generateKey()
    }

    override fun loadSecret(): ByteArray? {
        if (!file.exists()) return null
        val bytes = file.readBytes()
        val cipher = Cipher.getInstance(TRANSFORM)
        cipher.init(Cipher.DECRYPT_MODE, wrapKey(), GCMParameterSpec(128, bytes, 0, IV_BYTES))
        return cipher.doFinal(bytes, IV_BYTES, bytes.size - IV_BYTES)
    }

    override fun storeSecret(secret: ByteArray) {
        val cipher = Cipher.getInstance(TRANSFORM)
        cipher.init(Cipher.ENCRYPT_MODE, wrapKey())
        val tmp = File(dir, "device.key.tmp")
        tmp.writeBytes(cipher.iv + cipher.doFinal(secret))
        tmp.renameTo(file)
    }

    private companion object {
        const val KEYSTORE = "AndroidKeyStore"
        const val ALIAS = "tongcheng-device"
        const val TRANSFORM = "AES/GCM/NoPadding"
        const val IV_BYTES = 12
    }
}

/** The model's sounds as short tones (the player turns them off in the model's settings). */
class Sounds {
    private val tones = ToneGenerator(AudioManager.STREAM_MUSIC, 40)

    fun play(sound: Sound) {
        val tone = when (sound) {
            Sound.DISCARD -> ToneGenerator.TONE_PROP_BEEP
            Sound.CLAIM -> ToneGenerator.TONE_PROP_ACK
            Sound.WIN -> ToneGenerator.TONE_CDMA_CONFIRM
        }
        tones.startTone(tone, 80)
    }

    fun close() = tones.release()
}
