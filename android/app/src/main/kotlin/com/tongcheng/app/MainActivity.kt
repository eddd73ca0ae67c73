package com.tongcheng.app

import android.net.ConnectivityManager
import android.net.Network
import android.os.Bundle
import androidx.activity.ComponentActivity
import androidx.activity.compose.BackHandler
import androidx.activity.compose.setContent
import androidx.compose.runtime.getValue
import androidx.compose.runtime.mutableStateOf
import androidx.compose.runtime.setValue
import com.tongcheng.core.AppConfig
import com.tongcheng.core.AppModel
import com.tongcheng.core.AppShell
import com.tongcheng.core.TongchengException
import com.tongcheng.model.Sound
import com.tongcheng.model.View
import java.util.TimeZone

/**
 * The whole Android app around the Rust app model: it draws the [View] the model gives
 * ([Screens.kt]), passes taps back, and does what only the platform can — the key store
 * ([KeystoreVault]), sound, and telling the model when the network comes and goes. Every
 * screen's state, text and decision (including the clock, the history, the kept match, login
 * and the online table) is the model's, tested on the JVM through the same bindings.
 */
class MainActivity : ComponentActivity() {
    private var model: AppModel? = null
    private var view by mutableStateOf<View?>(null)
    private var failure by mutableStateOf<String?>(null)
    private val sounds = Sounds()
    private var network: ConnectivityManager.NetworkCallback? = null

    override fun onCreate(savedInstanceState: Bundle?) {
        super.onCreate(savedInstanceState)
        val shell = object : AppShell {
            // Called on the model's thread: the screen is swapped on the UI thread.
            override fun draw(view: View) = runOnUiThread { this@MainActivity.view = view }
            override fun playSound(sound: Sound) = sounds.play(sound)
        }
        val zone = TimeZone.getDefault().getOffset(System.currentTimeMillis()) / 60_000
        model = try {
            AppModel(
                AppConfig(filesDir.path, getString(R.string.server_url).ifBlank { null }, zone, null),
                KeystoreVault(filesDir),
                shell,
            )
        } catch (e: TongchengException) {
            // The app's own folder cannot be written (an unreadable history is kept aside by
            // the model itself): nothing can run, and the error's words are all there is.
            failure = e.message
            null
        }
        watchNetwork()
        setContent {
            val m = model
            val v = view
            when {
                m != null && v != null -> {
                    AppScreen(v) { runCatching { m.tap(it) } }
                    back(v)?.let { tap -> BackHandler { runCatching { m.tap(tap) } } }
                }
                else -> Unusable(failure)
            }
        }
    }

    private fun watchNetwork() {
        val cm = getSystemService(ConnectivityManager::class.java) ?: return
        val callback = object : ConnectivityManager.NetworkCallback() {
            override fun onAvailable(n: Network) { model?.network(true) }
            override fun onLost(n: Network) { model?.network(cm.activeNetwork != null) }
        }
        model?.network(cm.activeNetwork != null)
        cm.registerDefaultNetworkCallback(callback)
        network = callback
    }

    override fun onDestroy() {
        network?.let { getSystemService(ConnectivityManager::class.java)?.unregisterNetworkCallback(it) }
        model?.shutdown()
        model?.close()
        sounds.close()
        super.onDestroy()
    }
}
