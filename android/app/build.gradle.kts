plugins {
    id("com.android.application")
    id("org.jetbrains.kotlin.android")
    id("org.jetbrains.kotlin.plugin.compose")
}

android {
    namespace = "com.tongcheng.app"
    compileSdk = 35
    defaultConfig {
        applicationId = "com.tongcheng.app"
        minSdk = 26
        targetSdk = 35
        versionCode = 1
        versionName = "0.1.0"
        ndk { abiFilters += listOf("arm64-v8a", "armeabi-v7a", "x86_64") }
    }
    buildFeatures { compose = true }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_17
        targetCompatibility = JavaVersion.VERSION_17
    }
    kotlinOptions { jvmTarget = "17" }
    sourceSets["main"].jniLibs.srcDir(layout.buildDirectory.dir("rustJniLibs"))
    // The generated UniFFI bindings (the app model's views and AppModel): build output, never
    // committed.
    sourceSets["main"].kotlin.srcDir(rootProject.projectDir.resolve("../build/bindings/kotlin"))
}

// Builds the host library and generates the Kotlin bindings from it (scripts/bindings.sh).
val generateBindings by tasks.registering(Exec::class) {
    description = "Generates the Kotlin bindings (scripts/bindings.sh)."
    workingDir = rootProject.projectDir.resolve("..")
    commandLine("bash", "scripts/bindings.sh")
    outputs.dir(rootProject.projectDir.resolve("../build/bindings/kotlin"))
}

// Cross-compiles the Rust library for every ABI with cargo-ndk into build/rustJniLibs.
val cargoNdk by tasks.registering(Exec::class) {
    description = "cargo ndk -t arm64-v8a -t armeabi-v7a -t x86_64 build --release -p tongcheng-ffi"
    workingDir = rootProject.projectDir.resolve("..")
    commandLine(
        "cargo", "ndk",
        "-t", "arm64-v8a", "-t", "armeabi-v7a", "-t", "x86_64",
        "-o", layout.buildDirectory.dir("rustJniLibs").get().asFile.absolutePath,
        "build", "--release", "-p", "tongcheng-ffi",
    )
}
tasks.named("preBuild") { dependsOn(cargoNdk, generateBindings) }

dependencies {
    // JNA, which the generated bindings call the library through, as the Android archive:
    // its classes plus libjnidispatch.so for every ABI.
    implementation("net.java.dev.jna:jna:5.14.0@aar")
    implementation(platform("androidx.compose:compose-bom:2024.12.01"))
    implementation("androidx.compose.ui:ui")
    implementation("androidx.compose.material3:material3")
    implementation("androidx.activity:activity-compose:1.9.3")
    implementation("androidx.lifecycle:lifecycle-runtime-ktx:2.8.7")
}
