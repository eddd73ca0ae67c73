// Pure Kotlin (no Android imports): the screen logic plus the generated UniFFI bindings.
// The JVM tests in tests/kotlin compile exactly these sources against the real library.
plugins {
    id("org.jetbrains.kotlin.jvm")
}

val bindingsDir = rootProject.projectDir.resolve("../build/bindings/kotlin")

val generateBindings by tasks.registering(Exec::class) {
    description = "Builds the Rust library and generates the Kotlin bindings (scripts/bindings.sh)."
    workingDir = rootProject.projectDir.resolve("..")
    commandLine("bash", "scripts/bindings.sh")
    outputs.dir(bindingsDir)
}

kotlin {
    jvmToolchain(17)
    sourceSets["main"].kotlin.srcDir(bindingsDir)
}

tasks.named("compileKotlin") { dependsOn(generateBindings) }

dependencies {
    // JNA is compileOnly here, on purpose. The app ships JNA as the Android archive
    // (`jna:5.14.0@aar` in app/build.gradle.kts: the Java classes plus libjnidispatch.so for
    // every ABI). If this module put the plain `jna` jar on the app's runtime classpath too,
    // the APK would get the same com.sun.jna classes twice — a duplicate-class build failure
    // (and the jar's desktop natives, useless on a phone). So whoever runs this code supplies
    // JNA: the app its aar, the JVM tests a jar (tests/kotlin/run.sh uses Debian's libjna-java;
    // a Gradle test task here would use testRuntimeOnly below).
    compileOnly("net.java.dev.jna:jna:5.14.0")
    testRuntimeOnly("net.java.dev.jna:jna:5.14.0")
}
