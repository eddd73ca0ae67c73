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
    implementation("net.java.dev.jna:jna:5.14.0")
}
